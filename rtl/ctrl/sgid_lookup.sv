// sgid_lookup: the GID table entry at an sgid_index, {tagged, vid, type, gid}
// (143 bits, as the engine's gid_table port holds them), for roce_cmd (an
// RC/UC QP's path) and the requester (a UD WQE's address vector). An array
// read, so that it becomes a mux tree (a part-select at 143*index would be a
// 2288-bit shifter); an index beyond the table reads 0 (type 0: unused).
`default_nettype none

module sgid_lookup #(
  parameter int GID_TBL_LEN = 16
) (
  input  wire logic [GID_TBL_LEN*143-1:0] gid_table,
  input  wire logic [7:0]                 index,
  output logic [142:0]                    entry
);
  localparam int GW = (GID_TBL_LEN > 1) ? $clog2(GID_TBL_LEN) : 1;
  logic [142:0] arr [1 << GW];
  for (genvar i = 0; i < (1 << GW); i++) begin : g_gid
    if (i < GID_TBL_LEN) begin : g_entry
      assign arr[i] = gid_table[143*i +: 143];
    end else begin : g_none
      assign arr[i] = '0;
    end
  end
  /* verilator lint_off UNUSEDSIGNAL */  // index bits above the table's are checked by the caller
  logic [7:0] idx;
  /* verilator lint_on UNUSEDSIGNAL */
  assign idx = index;
  assign entry = idx < 8'(GID_TBL_LEN) ? arr[idx[GW-1:0]] : '0;
endmodule

`default_nettype wire
