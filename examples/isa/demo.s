// demo.s -- one of every BCU opcode (docs/isa.md), as used by `make run`.
// A producer/consumer pair on barrier 1, a reduction on barrier 2 and a
// context save/restore of barrier 0.

// BAR: every source combination of SrcBarId / SrcCnt.
BAR.SYNC 0x0 ;                 // BAR_I: barrier 0, all live warps (count 0)
BAR.ARV 0x1, 0x80 ;            // BAR_I: producer arrives on barrier 1, 128 threads
BAR.SYNC R2, R3 ;              // BAR_RR: id in R2, count in R3
BAR.SYNC R4 ;                  // BAR_RRI: id in R4, count 0
BAR.ARV 0x1, R5 ;              // BAR_RIR: id 1, count in R5

// BAR.RED: the reduction forms, with a guard and a negated predicate.
@P0 BAR.RED.POPC 0x2, 0x40, PT ;  // BAR_RED_I
BAR.RED.OR R6, !P1 ;              // BAR_RED_R: id and count packed in R6
BAR.RED.AND R4, 0x40, P2 ;        // BAR_RED_RRI
BAR.RED.AND 0x2, R5, !P3 ;        // BAR_RED_RIR

// Reading the result and the state.
BAR.RESULT R0, P4 ;            // B2R_RESULT_X: popcount to R0, AND/OR to P4
B2R.RESULT R1 ;                // the same, other spelling; predicate discarded
B2R.WARP R7 ;                  // B2R_I: state of this warp's last BAR.RED barrier
B2R R8, 0x0 ;                  // B2R_I, default .BAR mode: state of barrier 0

// Context restore.
R2B.BAR 0x0, R8 ;              // R2B_RI: write barrier 0's state
R2B.WARP R7 ;                  // R2B_RI: write this warp's local copy
