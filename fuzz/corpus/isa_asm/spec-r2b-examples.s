// RUN: bcusim asm --show-encoding %s
// __Examples of __DefOptype R2B in 001 (the `...` line left out).
R2B 0x0, R0;    // 默认为BAR模式，BARState[0]=R0
R2B.WARP R0;    // WARP模式将R0存入当前WARP的临时WarpBARState中，忽略输入的BarId

R2B.BAR 0x0, R0;     // 用R0设置barrier-0的状态
BAR.RED.POPC 0x1, 0x40, PT; // 在64个线程之间进行popcount归约
R2B.WARP 0x4, R1;    // 用R1设置上次BAR.RED的状态信息的本地副本，此时第1个立即数是不生效的
