// RUN: bcusim asm --show-encoding %s
// __Examples of __DefOptype B2R in 001 (the `...` line left out).
B2R R0, 0x0;         // 默认为BAR模式，R0=BARState[0]
B2R.WARP R0, 0x0;    // WARP模式将当前WARP的临时WarpBARState存入R0，忽略输入的BarId
                     // WarpBARState是BAR_RED完成同步后自动下发，其他情形为未定义行为。

B2R.BAR R0, 0x0;     // 获取barrier-0的状态

BAR.RED.POPC 0x1, 0x40, PT; // 在64个线程之间进行popcount归约
B2R.WARP R1, 0x4;    // 获取上次BAR.RED所用barrier-1的状态，此时第2个立即数是不生效的
