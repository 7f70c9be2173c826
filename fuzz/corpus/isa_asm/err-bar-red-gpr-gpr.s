// RUN: bcusim asm %s
// SPEC-NOTES 5: GPR barrier id with GPR count is not encodable for BAR.RED.
BAR.RED.AND R5, R5, P0 ;
