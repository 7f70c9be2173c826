// RUN: bcusim asm %s
// Wrong operand kinds.
BAR.SYNC P0 ;
B2R.BAR 0x1, 0x0 ;
BAR.RED.AND 0x1, 0x40, R4 ;
BAR.RESULT P0, R1 ;
BAR.SYNC R256 ;
BAR.RED.AND 0x1, 0x40, !R4 ;
BAR.SYNC !0x1 ;
