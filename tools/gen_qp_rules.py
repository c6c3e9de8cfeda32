"""The QP state-transition table (spec/qp_rules.toml) in SystemVerilog, C++
and markdown. Imported by tools/gen_spec.py, which writes the files.

The SV package holds only literals: Yosys 0.23 refuses a reference to another
package (roce_pkg::...) from inside a package, so the values are resolved
here, from spec/constants.toml, once.
"""
import sys


def _enum(spec, name):
    return {x["name"]: x["value"] for x in spec["constants"]["enum"][name]["values"]}


def check(spec):
    states, attrs, actions = _enum(spec, "qp_state"), _enum(spec, "qp_attr"), _enum(spec, "qp_action")
    types = _enum(spec, "qp_type")
    for i, r in enumerate(spec["qp_rules"]["rule"]):
        for t in r.get("types", []):
            if t not in types:
                sys.exit(f"spec/qp_rules.toml: rule {i + 1}: unknown qp_type {t}")
        where = f"spec/qp_rules.toml: rule {i + 1} ({r['from']} -> {r['to']})"
        if r["from"] != "ANY" and r["from"] not in states:
            sys.exit(f"{where}: unknown from state {r['from']}")
        if r["to"] not in states:
            sys.exit(f"{where}: unknown to state {r['to']}")
        if r["action"] not in actions:
            sys.exit(f"{where}: unknown action {r['action']}")
        for b in r["required"] + r["optional"]:
            if b not in attrs:
                sys.exit(f"{where}: unknown qp_attr bit {b}")
        if set(r["required"]) & set(r["optional"]):
            sys.exit(f"{where}: a bit is both required and optional")


def _rows(spec):
    """(from value or None for ANY, to value, action value, required mask, optional mask, rule,
    qp_type values or None for every type)."""
    states, attrs, actions = _enum(spec, "qp_state"), _enum(spec, "qp_attr"), _enum(spec, "qp_action")
    types = _enum(spec, "qp_type")
    mask = lambda names: sum(attrs[n] for n in names)
    return [(None if r["from"] == "ANY" else states[r["from"]], states[r["to"]], actions[r["action"]],
             mask(r["required"]), mask(r["optional"]), r,
             [types[t] for t in r["types"]] if "types" in r else None) for r in spec["qp_rules"]["rule"]]


def _bits(values):
    return max(1, max(values).bit_length())


def gen_sv(spec, banner):
    attrs = _enum(spec, "qp_attr")
    sw = _bits(_enum(spec, "qp_state").values())
    tw = _bits(_enum(spec, "qp_type").values())
    aw = _bits(_enum(spec, "qp_action").values())
    L = [f"// {banner[0]}", f"// {banner[1]}", "//",
         "// roce_qp_rules_pkg: the QP state-transition table of the command processor",
         "// (spec/qp_rules.toml; IBTA 10.3, Linux ib_modify_qp_is_ok). Literals only:",
         "// Yosys 0.23 refuses references to another package from inside a package.",
         "`default_nettype none", "", "package roce_qp_rules_pkg;", "",
         "  // attr_mask bits (qp_attr: the ibv_qp_attr_mask values), widened to the mailbox's 32-bit mask",
         "  /* verilator lint_off UNUSEDPARAM */"]
    for name, v in attrs.items():
        L.append(f"  localparam logic [31:0] ATTR_{name} = 32'h{v:08X};")
    L += ["  /* verilator lint_on UNUSEDPARAM */", "",
          "  typedef struct packed {",
          "    logic              ok;        // the pair from -> to is a transition",
          f"    logic [{aw - 1}:0]        action;    // qp_action sent to the QP's owners",
          "    logic [31:0]       required;  // attr_mask bits that must be present",
          "    logic [31:0]       optional;  // attr_mask bits that may be present",
          "  } qp_rule_t;", "",
          "  // The first rule whose from, to and QP type match (spec/qp_rules.toml order).",
          f"  function automatic qp_rule_t qp_rule(input logic [{sw - 1}:0] from, input logic [7:0] to,",
          f"                                       input logic [{tw - 1}:0] qp_type);",
          "    qp_rule = '0;"]
    first = True
    for frm, to, act, req, opt, r, typ in _rows(spec):
        cond = f"to == 8'd{to}" if frm is None else f"from == {sw}'d{frm} && to == 8'd{to}"
        if typ is not None:
            cond += " && (" + " || ".join(f"qp_type == {tw}'d{t}" for t in typ) + ")"
        kw = "if" if first else "else if"
        first = False
        L.append(f"    {kw} ({cond}) qp_rule = {{1'b1, {aw}'d{act}, 32'h{req:08X}, 32'h{opt:08X}}};"
                 f"  // {r['from']} -> {r['to']}: {r['action']}")
    L += ["  endfunction", "",
          "  // The command may move the QP: STATE in the mask, an allowed pair, every",
          "  // required bit present and no bit outside required | optional | STATE.",
          "  function automatic logic mask_ok(input logic ok, input logic [31:0] required, input logic [31:0] optional,",
          "                                   input logic [31:0] mask);",
          "    mask_ok = ok && (mask & ATTR_STATE) != 32'b0 && ((mask & required) == required) &&",
          "              ((mask & ~(required | optional | ATTR_STATE)) == 32'b0);",
          "  endfunction", "endpackage", "", "`default_nettype wire"]
    return "\n".join(L) + "\n"


def gen_cpp(spec, banner, camel):
    L = [f"// {banner[0]}", f"// {banner[1]}", "//",
         "// The QP state-transition table of the command processor (spec/qp_rules.toml;",
         "// IBTA 10.3, Linux ib_modify_qp_is_ok), as rtl/base/roce_qp_rules_pkg.sv has it.",
         "#pragma once", "", "#include <cstdint>", "", "#include \"gen/roce_spec.h\"", "",
         "namespace rocenic::spec {", "",
         "struct QpRule {",
         "  bool ok = false;         // the pair from -> to is a transition",
         "  QpAction action = QpAction::kAttr;",
         "  uint32_t required = 0;   // attr_mask bits that must be present",
         "  uint32_t optional = 0;   // attr_mask bits that may be present",
         "};", "",
         "// The first rule whose from, to and QP type (qp_type enum) match.",
         "inline constexpr QpRule qp_rule(uint8_t from, uint8_t to, uint8_t qp_type) {"]
    actions = {v: k for k, v in _enum(spec, "qp_action").items()}
    for frm, to, act, req, opt, r, typ in _rows(spec):
        cond = f"to == {to}" if frm is None else f"from == {frm} && to == {to}"
        if typ is not None:
            cond += " && (" + " || ".join(f"qp_type == {t}" for t in typ) + ")"
        L.append(f"  if ({cond}) return {{true, QpAction::k{camel(actions[act])}, 0x{req:08X}u, 0x{opt:08X}u}};"
                 f"  // {r['from']} -> {r['to']}")
    state = _enum(spec, "qp_attr")["STATE"]
    L += ["  return {};", "}", "",
          "// The command may move the QP: STATE in the mask, an allowed pair, every",
          "// required bit present and no bit outside required | optional | STATE.",
          "inline constexpr bool qp_mask_ok(const QpRule& r, uint32_t mask) {",
          f"  return r.ok && (mask & 0x{state:X}u) && (mask & r.required) == r.required &&",
          f"         (mask & ~(r.required | r.optional | 0x{state:X}u)) == 0;",
          "}", "", "}  // namespace rocenic::spec"]
    return "\n".join(L) + "\n"


def gen_md(spec, banner):
    L = [f"<!-- {banner[0]} -->", "", "# QP state transitions (MODIFY_QP)", "",
         "Rules are tried in order; the first whose from and to match decides. STATE is always",
         "required; a pair no rule matches, a missing required bit, or a bit outside",
         "required ∪ optional ∪ STATE is refused with `BAD_STATE`.", "",
         "| from | to | QP types | required | optional | qp_action |", "|---|---|---|---|---|---|"]
    for r in spec["qp_rules"]["rule"]:
        L.append(f"| {r['from']} | {r['to']} | {', '.join(r.get('types', [])) or 'all'} | "
                 f"{', '.join(r['required']) or '—'} | {', '.join(r['optional']) or '—'} | {r['action']} |")
    return "\n".join(L) + "\n"
