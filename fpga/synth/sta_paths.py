#!/usr/bin/env python3
"""Name the slowest paths of a flattened netlist after Yosys `sta`.

    sta_paths.py NETLIST.il N > TOP.paths.txt

Yosys 0.23's `sta` takes no options and prints one path: the latest arrival,
with the names ABC gave the LUTs and nets on it ($abc$...), so the RTL blocks
it crosses are not visible. It does leave its arrival time (ps) on every net
it reached, as the wire attribute `sta_arrival`, which `write_rtlil` keeps.
This script reads that netlist and, for the N latest flip-flop endpoints
(one per register, not per bit), walks each path back from the endpoint
through the input with the latest arrival to the start point (a flip-flop,
a RAM output or a primary input), and names:
  * the start and end registers (their Q nets keep the RTL name), and
  * the blocks crossed: the instance paths (u_x.u_y.) of every RTL-named net
    on the path or feeding a cell on it (ABC's own nets carry no name; the
    side inputs of its LUTs usually come straight from named registers).
Delays are cell delays only, no routing, as in `sta`. MUXF7/8/9, CARRY4,
LUT-RAM, block RAM and DSP cells have no timing arcs in Yosys 0.23: `sta`
neither passes through them nor starts a path at their outputs, so the real
paths through them are longer than reported here.
"""
import re
import sys
from collections import defaultdict

FF_TYPES = {"FDRE", "FDSE", "FDCE", "FDPE"}
FF_DATA_PORTS = {"D", "CE", "R", "S", "CLR", "PRE"}
# Cells whose outputs start a path (clock-to-out), as in the Xilinx cell library.
START_TYPES = FF_TYPES | {"RAMB18E2", "RAMB36E2", "URAM288", "URAM288_BASE", "SRL16E", "SRLC32E",
                          "RAM32M", "RAM32M16", "RAM64M", "RAM64M8", "RAM32X1D", "RAM64X1D",
                          "RAM128X1D", "RAM256X1D", "RAM32X1S", "RAM64X1S", "DSP48E2"}
CLOCK_PORTS = {"C", "CLK", "CLKARDCLK", "CLKBWRCLK", "WCLK"}


def parse_const_bits(text):
    """`8'01x0...` -> list of bit chars, LSB first."""
    m = re.match(r"(\d+)'([01xzm-]*)$", text)
    if not m:
        return None
    width, bits = int(m.group(1)), m.group(2)
    bits = bits.rjust(width, bits[0] if bits else "0")
    return list(reversed(bits))


class Netlist:
    def __init__(self):
        self.width = {}          # wire -> width
        self.offset = {}         # wire -> start offset
        self.arrival = {}        # wire -> list of ints (per bit, LSB first) or None
        self.in_ports = set()
        self.out_ports = set()
        self.cells = []          # (name, type, {port: [bits]})
        self.alias = []          # (lhs bits, rhs bits)

    def sig_bits(self, text):
        """Parse an RTLIL SigSpec into a list of bits (LSB first):
        a bit is (wire, index) or a constant character."""
        text = text.strip()
        if text.startswith("{"):
            parts = tokenize_concat(text[1:-1].strip())
            bits = []
            for p in reversed(parts):     # concatenation lists MSB part first
                bits.extend(self.sig_bits(p))
            return bits
        if "'" in text and text[0].isdigit():
            return list(parse_const_bits(text) or [])
        m = re.match(r"(\S+)(?: \[(\d+)(?::(\d+))?\])?$", text)
        name = m.group(1)
        w = self.width.get(name, 1)
        off = self.offset.get(name, 0)
        if m.group(2) is None:
            return [(name, i) for i in range(w)]
        hi = int(m.group(2)) - off
        lo = int(m.group(3)) - off if m.group(3) is not None else hi
        return [(name, i) for i in range(lo, hi + 1)]


def tokenize_concat(body):
    """Parts of a concatenation body. RTLIL separates every token by a space:
    braces, names (which may contain [n], e.g. `\\mem[3]`) and bit selectors
    (` [7:4]`, the only tokens that start with `[`)."""
    out, cur, depth = [], [], 0
    for t in body.split():
        if depth == 0 and t.startswith("[") and out:
            out[-1] += " " + t
            continue
        cur.append(t)
        if t == "{":
            depth += 1
        elif t == "}":
            depth -= 1
        if depth == 0:
            out.append(" ".join(cur))
            cur = []
    return out


def read_rtlil(path):
    """The one module of the netlist that is not a cell-library black box
    (`sta` leaves a derived black box per LUT parameterisation beside it)."""
    nl = Netlist()
    attrs = {}
    mod_attrs = set()
    cell = None
    state = "out"                 # out | in (the top) | skip (a black box)
    with open(path) as f:
        for line in f:
            if state != "in":
                if line.startswith("attribute "):
                    mod_attrs.add(line.split()[1])
                elif line.startswith("module "):
                    boxed = mod_attrs & {"\\blackbox", "\\whitebox", "\\abc9_box"}
                    state = "skip" if boxed else "in"
                    mod_attrs = set()
                elif line.rstrip("\n") == "end":
                    state = "out"
                continue
            if line.rstrip("\n") == "end":      # the module's own end, at column 0
                state = "out"
                continue
            s = line.strip()
            if not s:
                continue
            if s.startswith("attribute "):
                _, key, val = s.split(" ", 2)
                if key == "\\sta_arrival":
                    attrs["sta"] = val
                continue
            if s.startswith("wire "):
                toks = s.split()
                name = toks[-1]
                width, off = 1, 0
                for i, t in enumerate(toks):
                    if t == "width":
                        width = int(toks[i + 1])
                    elif t == "offset":
                        off = int(toks[i + 1])
                    elif t == "input":
                        nl.in_ports.add(name)
                    elif t == "output":
                        nl.out_ports.add(name)
                nl.width[name] = width
                nl.offset[name] = off
                if "sta" in attrs:
                    # Yosys writes the intvec attribute as a string: "934 -1 945" (LSB first)
                    nl.arrival[name] = [int(v) for v in attrs["sta"].strip('"').split()]
                attrs = {}
                continue
            if s.startswith("cell "):
                _, ctype, cname = s.split()
                cell = (cname, ctype.lstrip("\\"), {})
                attrs = {}
                continue
            if cell is not None:
                if s.startswith("connect "):
                    _, port, sig = s.split(" ", 2)
                    cell[2][port.lstrip("\\")] = sig
                elif s == "end":
                    nl.cells.append(cell)
                    cell = None
                continue
            if s.startswith("connect "):
                lhs, rhs = split_connect(s[len("connect "):])
                nl.alias.append((lhs, rhs))
                continue
            attrs = {}
    return nl


def split_connect(rest):
    """Split `A B` of a module-level connect (either side a concatenation or a slice)."""
    parts = tokenize_concat(rest)
    assert len(parts) == 2, rest[:200]
    return parts[0], parts[1]


def public(name):
    return name.startswith("\\")


def block_of(name):
    """Instance path of an RTL-named net: `\\u_a.u_b.x_q` -> `u_a.u_b`."""
    n = name.lstrip("\\")
    return n.rsplit(".", 1)[0] if "." in n else "(top)"


def main():
    netlist_path, n_paths = sys.argv[1], int(sys.argv[2])
    nl = read_rtlil(netlist_path)

    # Union-find over module-level aliases, keeping an RTL name as the canonical one.
    parent = {}
    def find(b):
        while parent.get(b, b) != b:
            parent[b] = parent.get(parent[b], parent[b])
            b = parent[b]
        return b
    for lhs, rhs in nl.alias:
        lb, rb = nl.sig_bits(lhs), nl.sig_bits(rhs)
        for a, b in zip(lb, rb):
            if isinstance(a, str) or isinstance(b, str):
                continue
            ra, rb_ = find(a), find(b)
            if ra != rb_:
                if public(rb_[0]) and not public(ra[0]):
                    parent[ra] = rb_
                else:
                    parent[rb_] = ra
    names = defaultdict(set)   # canonical bit -> all names (for RTL naming)
    for lhs, rhs in nl.alias:
        for a, b in zip(nl.sig_bits(lhs), nl.sig_bits(rhs)):
            if not isinstance(a, str) and not isinstance(b, str):
                names[find(a)].update([a, b])

    def arrival(bit):
        best = None
        cands = [bit] + [x for x in names.get(bit, ())]
        for w, i in cands:
            a = nl.arrival.get(w)
            if a is not None and i < len(a) and a[i] >= 0:
                best = a[i] if best is None else max(best, a[i])
        return best

    label_cache = {}
    def label(bit):
        """Best human name of a net bit: an RTL name, the least deep one (a net
        that crosses ports is named where it is highest, rst as rst)."""
        if bit in label_cache:
            return label_cache[bit]
        pub = [c for c in [bit] + list(names.get(bit, ())) if public(c[0])]
        if pub:
            w, i = min(pub, key=lambda c: (c[0].count("."), c[0], c[1]))
            i += nl.offset.get(w, 0)
            lab = f"{w[1:]}[{i}]" if nl.width.get(w, 1) > 1 else w[1:]
        else:
            w, i = bit
            lab = f"{w}[{i}]"
        label_cache[bit] = lab
        return lab

    def net_blocks(bit):
        """Blocks a net is named in: both sides of a port it crosses (deepest
        first); none for a global net such as rst, named in many blocks."""
        bl = {block_of(w) for w, _ in [bit] + list(names.get(bit, ())) if public(w)}
        return sorted(bl, key=lambda b: -b.count(".")) if len(bl) <= 3 else []

    def public_label(bit):
        return not label(bit).startswith("$")

    driver = {}            # bit -> (cell index, port)
    cell_bits = []         # per cell: {port: [canonical bits]}
    for ci, (cname, ctype, conns) in enumerate(nl.cells):
        pb = {}
        for port, sig in conns.items():
            bits = [b if isinstance(b, str) else find(b) for b in nl.sig_bits(sig)]
            pb[port] = bits
        cell_bits.append(pb)
    # Output ports of the Xilinx primitives: everything named O*, Q*, DO*, DOUT*, CO, P* (DSP) ...
    def is_output(ctype, port):
        if ctype in FF_TYPES:
            return port == "Q"
        if ctype.startswith("LUT") or ctype.startswith("MUXF"):
            return port == "O"
        if ctype.startswith("CARRY"):
            return port in ("O", "CO")
        return bool(re.match(r"^(O|Q|DO|DOUT|CASDOUT|CASOUT|P$|PCOUT|ACOUT|BCOUT|CARRYCASCOUT|MULTSIGNOUT|"
                             r"CARRYOUT|XOROUT|PATTERN|OVERFLOW|UNDERFLOW|RDADDRECC|SBITERR|DBITERR|ECC|CAS_OUT|"
                             r"DOUT_|RDACCESS)", port))
    for ci, (cname, ctype, _) in enumerate(nl.cells):
        for port, bits in cell_bits[ci].items():
            if is_output(ctype, port):
                for b in bits:
                    if not isinstance(b, str):
                        driver[b] = (ci, port)

    # Endpoints: the data/control inputs of every flip-flop, one per register
    # (the RTL name of its Q net without the bit index).
    best_by_reg = {}
    for ci, (cname, ctype, _) in enumerate(nl.cells):
        if ctype not in FF_TYPES:
            continue
        q = cell_bits[ci].get("Q", [None])[0]
        reg = label(q) if q is not None and not isinstance(q, str) else cname
        if reg.startswith("$abc$") or reg.startswith("$techmap"):
            reg = f"(unnamed {ctype} {cname})"
        reg_base = re.sub(r"\[\d+\]$", "", reg)
        for port in FF_DATA_PORTS:
            for b in cell_bits[ci].get(port, []):
                if isinstance(b, str):
                    continue
                a = arrival(b)
                if a is None:
                    continue
                if reg_base not in best_by_reg or a > best_by_reg[reg_base][0]:
                    best_by_reg[reg_base] = (a, b, reg, port)
    ranked = sorted(best_by_reg.items(), key=lambda kv: -kv[1][0])[:n_paths]

    print(f"# {len(best_by_reg)} registers with a timed input; the {len(ranked)} latest"
          " (arrival in ps, cell delays only, no routing)")
    for rank, (reg_base, (a, bit, reg, end_port)) in enumerate(ranked, 1):
        steps = []
        blocks = []
        seen_blocks = set()
        def note_block(bl):
            if bl not in seen_blocks:
                seen_blocks.add(bl)
                blocks.append(bl)
        cur = bit
        start = None
        for _ in range(10000):
            drv = driver.get(cur)
            if drv is None:
                start = (label(cur), "primary input" if any(w in nl.in_ports for w, _ in [cur] + list(names.get(cur, ()))) else "undriven")
                break
            ci, oport = drv
            cname, ctype, _ = nl.cells[ci]
            side = []
            steps.append((arrival(cur), label(cur), ctype, side))
            for bl in net_blocks(cur):
                note_block(bl)
            if ctype in START_TYPES:
                start = (label(cur), ctype)
                break
            # side inputs: their RTL names tell which block the cell belongs to
            nxt, nxt_a = None, None
            for port, bits in cell_bits[ci].items():
                if is_output(ctype, port) or port in CLOCK_PORTS:
                    continue
                for b in bits:
                    if isinstance(b, str):
                        continue
                    for bl in net_blocks(b):
                        if bl != "(top)":
                            note_block(bl)
                    if public_label(b) and len(side) < 3 and label(b) not in side:
                        side.append(label(b))
                    ba = arrival(b)
                    if ba is not None and (nxt_a is None or ba > nxt_a):
                        nxt, nxt_a = b, ba
            if nxt is None:
                start = (label(cur), f"{ctype} with no timed input")
                break
            cur = nxt
        if not reg.startswith("("):
            note_block(block_of(reg))
        if not start[0].startswith("$"):
            note_block(block_of(start[0]))
        print()
        print(f"path {rank}: {a} ps  end {reg} ({end_port} input)  start {start[0]} ({start[1]})"
              f"  {len(steps)} cells")
        print(f"  blocks: {', '.join(sorted(blocks)) if blocks else '(no RTL-named net on the path)'}")
        for arr, lab, ctype, side in reversed(steps):
            near = f"   (inputs incl. {', '.join(side)})" if side else ""
            lab = lab if not lab.startswith("$") else "-"   # ABC's own net: no RTL name
            print(f"  {arr if arr is not None else '?':>6}  {ctype:<9} {lab}{near}")


if __name__ == "__main__":
    main()
