// RUN: bcusim asm --format hex --isa ../../../isa/bcu.isa --isa ../../../isa/bcu-codes.isa %s
// --isa replaces the built-in model (here by the same files).
BAR.SYNC 0x1, 0x40 ;
BAR.RED.OR R0, !P1 ;
