// bytes: races are per byte. Lane 0 of each warp copies its warp's tag
// into a table of 4-byte slots (slot w at bytes 4w..4w+3).
//   tag_buggy: the tags are 5 bytes long (memcpy of 5 bytes): warp w also
//     writes byte 4w+4, the first byte of slot w+1, which warp w+1 writes
//     too (write-write race on one byte; the copies are byte stores, and
//     the conflicting pair is the last store of one copy and the first
//     store of the next).
//   tag_fixed: 4-byte tags (memcpy of 4 bytes): adjacent slots, disjoint
//     bytes. In addition every thread writes one byte of `mark`, so four
//     lanes write the four bytes of each 32-bit word: neighbouring bytes of
//     one word are different locations, not a race (clean).
// Launch: -g 1 -b 128; tags = u8[20] (iota), table = u8[20], mark = u8[128]
// (tag_buggy takes tags and table only).
// Fixed result: table[i] = tags[5 * (i / 4) + i % 4] for i < 16, 0 after;
// mark[t] = (t * 7 + 3) % 256.
#include <cstring>

extern "C" __global__ void tag_buggy(const unsigned char *tags,
                                     unsigned char *table) {
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0)
    memcpy(table + 4 * warp, tags + 5 * warp, 5);
}

extern "C" __global__ void tag_fixed(const unsigned char *tags,
                                     unsigned char *table,
                                     unsigned char *mark) {
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0)
    memcpy(table + 4 * warp, tags + 5 * warp, 4);
  mark[threadIdx.x] = static_cast<unsigned char>(threadIdx.x * 7 + 3);
}
