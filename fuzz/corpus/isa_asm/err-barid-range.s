// RUN: bcusim asm %s
// Barrier ids are UImm4: 0..15.
BAR.SYNC 0x10, 0x40 ;
B2R.BAR R0, 16 ;
