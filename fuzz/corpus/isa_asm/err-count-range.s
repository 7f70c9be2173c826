// RUN: bcusim asm %s
// Counts are UImm12: 0..4095.
BAR.SYNC 0x1, 0x1000 ;
BAR.RED.AND 0x1, 4096, P0 ;
