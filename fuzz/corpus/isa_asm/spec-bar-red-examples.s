// RUN: bcusim asm --show-encoding %s
// __Examples of __DefOptype BAR_RED in 001.
BAR.RED.POPC 0x0, 0x40,  PT; // 在64个线程之间进行popcount归约
BAR.RED.OR          R0, !P1; // 使用barId=R0 & 0xF的barrier，在cnt=(R0 & 0xFFF)>>4个线程之间进行逻辑或归约
