// RUN: bcusim asm %s
// Unknown mnemonics.
BAZ.SYNC 0x0 ;
bar.sync 0x0 ;
