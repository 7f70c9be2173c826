// RUN: bcusim asm %s
// Wrong operand counts.
BAR.SYNC ;
BAR.SYNC 0x1, 0x40, 0x0 ;
B2R.BAR ;
R2B.BAR 0x1, R1, R2 ;
BAR.RED.AND P0 ;
