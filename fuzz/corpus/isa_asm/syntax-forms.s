// RUN: bcusim asm %s
// Guards, negation, RZ/PT, decimal and hex immediates, several statements
// per line, blank lines and comments; output is the canonical text.
@P0 BAR.SYNC 0x1, 0x40 ;
@!P0 BAR.ARV 15, 4064;
@PT BAR.SYNC 0XF, 0xFE0
@!PT BAR.RED.AND 0x1, R5, !P1 ;  BAR.RED.POPC RZ, PT ; B2R.WARP R0, 0x0

   B2R.RESULT RZ, P6 ;
BAR.RESULT R254, PT;
R2B 15, RZ; // mode defaults to .BAR
