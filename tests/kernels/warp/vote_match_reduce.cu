// vote_match_reduce: vote.sync (ballot/any/all), match.sync (any/all) and
// redux.sync (sm_80 __reduce_*_sync), with the full mask and in divergent
// branches with the branch's lanes as the member mask.
// Per thread (2 CTAs of 64), out[gtid * 12 + k]:
//  0 ballot(v % 3 == 0)           1 any(warp 1 lane 17)   2 all(tid != 5)
//  3 lanes < 20: ballot(lane odd, mask 0x000fffff)
//    lanes >= 20: ballot(lane % 4 == 0, mask 0xfff00000)
//  4 popc(ballot(1))             5 match_any(lane / 5)
//  6 match_all(7) mask, 7 its predicate; 8 match_all(lane) predicate
//  9 reduce_add(lane)  10 reduce_max(v) 11 lanes >= 8: reduce_add(lane)
//    over mask 0xffffff00; lanes < 8: reduce_or(lane) over 0x000000ff
extern "C" __global__ void vote_match_reduce(unsigned *out) {
  const unsigned tid = threadIdx.x;
  const unsigned lane = tid % 32, warp = tid / 32;
  const unsigned v = (tid * 37u + blockIdx.x * 11u) % 101u;
  const unsigned full = 0xffffffffu;
  unsigned *o = out + (blockIdx.x * blockDim.x + tid) * 12;
  o[0] = __ballot_sync(full, v % 3 == 0);
  o[1] = __any_sync(full, warp == 1 && lane == 17);
  o[2] = __all_sync(full, tid != 5);
  if (lane < 20)
    o[3] = __ballot_sync(0x000fffffu, lane & 1);
  else
    o[3] = __ballot_sync(0xfff00000u, lane % 4 == 0);
  o[4] = __popc(__ballot_sync(full, 1));
  o[5] = __match_any_sync(full, lane / 5);
  int pred = -1;
  o[6] = __match_all_sync(full, 7u, &pred);
  o[7] = static_cast<unsigned>(pred);
  __match_all_sync(full, lane, &pred);
  o[8] = static_cast<unsigned>(pred);
  o[9] = __reduce_add_sync(full, lane);
  o[10] = __reduce_max_sync(full, v);
  if (lane >= 8)
    o[11] = __reduce_add_sync(0xffffff00u, lane);
  else
    o[11] = __reduce_or_sync(0x000000ffu, lane);
}
