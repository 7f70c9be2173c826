// RUN: bcusim asm %s
// Malformed statements, guards and scheduling control.
B2R.BAR R4, 0x2 $wsb ;
BAR.SYNC 0x1 0x40 ;
BAR.SYNC 0x1, ;
@P9 BAR.SYNC 0x0 ;
@ BAR.SYNC 0x0 ;
BAR.SYNC -1 ;
BAR.SYNC 0x1g ;
BAR.SYNC 99999999999999999999999 ;
