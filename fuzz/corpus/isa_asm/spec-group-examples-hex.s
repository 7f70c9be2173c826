// RUN: bcusim asm --format hex %s
// The __Examples block of __DefGroup BCU in 001, as written (the one
// non-encodable line, BAR.RED.AND R5, R5, P0, is in err-bar-red-gpr-gpr.s).
BAR.SYNC 0x0 ; //
BAR.ARV 0x1, 0x80 ;
BAR.ARV 0x1, R5 ;
BAR.ARV R4, 0x80 ;
BAR.ARV R5, R5 ;    // => BAR.ARV R5, R5;
BAR.SYNC R7, R7 ;   // => BAR.SYNC R7, R7;
BAR.SYNC R4 ;

BAR.RED.OR 0x0, P0 ;
BAR.RED.AND 0x1, 0x80, P0 ;
BAR.RED.AND 0x1, R5, P0 ;
BAR.RED.AND R4, P0 ;
BAR.RED.AND R4, 0x80, P0 ;

B2R.RESULT RZ, P0 ;
B2R.RESULT R4 ;
B2R.BAR R4, 0x2;
B2R.WARP R4;

R2B.WARP R4;
R2B.BAR 0x4, R4;
