// RUN: bcusim asm %s
// BAR.ARV requires SrcCnt > 0.
BAR.ARV 0x1, 0x0 ;
