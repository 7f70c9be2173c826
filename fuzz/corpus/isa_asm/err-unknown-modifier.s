// RUN: bcusim asm %s
// Unknown or missing modifiers.
BAR.WAIT 0x0 ;
BAR.RED.XOR R4, P0 ;
B2R.CTA R0, 0x0 ;
BAR.SYNC.X 0x0 ;
BAR ;
BAR.RED R4, P0 ;
