// RUN: bcusim asm %s
// Counts must be multiples of 32.
BAR.SYNC 0x1, 0x41 ;
BAR.RED.POPC R4, 100, P0 ;
