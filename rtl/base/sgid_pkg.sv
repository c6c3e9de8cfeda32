// GID table entries (CSR GID, docs/spec/csr.md): what an entry's type and
// address say about the frames of a QP (or a UD work request) that uses it.
// roce_cmd resolves an RC/UC QP's path with it, the requester a UD WQE's
// address vector.
`default_nettype none

package sgid_pkg;
  // The encapsulation (l3 enum): type 1 (RoCE v1) -> ROCEV1; type 2 (RoCE v2)
  // with an IPv4-mapped GID (::ffff:a.b.c.d) -> IPV4, any other -> IPV6.
  /* verilator lint_off UNUSEDSIGNAL */  // the IPv4 address itself (gid[31:0]) does not matter
  function automatic logic [1:0] gid_l3(input logic [1:0] gid_type, input logic [127:0] gid);
  /* verilator lint_on UNUSEDSIGNAL */
    if (gid_type == 2'd1) gid_l3 = roce_pkg::L3_ROCEV1;
    else if (gid[127:32] == 96'h0000_0000_0000_0000_0000_ffff) gid_l3 = roce_pkg::L3_IPV4;
    else gid_l3 = roce_pkg::L3_IPV6;
  endfunction

  // An entry in use is RoCE v1 (1) or v2 (2): 0 is unused, 3 no defined type.
  function automatic logic gid_usable(input logic [1:0] gid_type);
    gid_usable = gid_type == 2'd1 || gid_type == 2'd2;
  endfunction
endpackage

`default_nettype wire
