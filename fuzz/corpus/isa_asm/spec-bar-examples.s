// RUN: bcusim asm --show-encoding %s
// __Examples of __DefOptype BAR in 001.
BAR.SYNC 0x0, 0x40 ;
BAR.SYNC  R0, R1   ;
BAR.ARV  0x0, R1   ;
