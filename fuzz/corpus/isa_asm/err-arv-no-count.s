// RUN: bcusim asm %s
// BAR.ARV requires SrcCnt > 0: leaving the count out (0) is an error.
BAR.ARV 0x1 ;
BAR.ARV R4 ;
