// RUN: bcusim asm --show-encoding %s
// __Examples of __DefOptype B2R_RESULT in 001.
BAR.RED.POPC 0x0, 0x40, PT; // 在64个线程之间进行popcount归约
BAR.RESULT R0, PT;     // 获取归约结果，写入R0，并舍弃谓词输出
