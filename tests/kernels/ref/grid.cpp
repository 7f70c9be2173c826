// References for tests/kernels/grid/*.cu: which thread of which CTA owns
// each element of a multi-dimensional domain (global index = ctaid * ntid +
// tid per dimension), computed with sequential loops over the domain.
#include "ref_common.h"

namespace {

// grid2d GX GY BX BY W H
void grid2d(int argc, char **argv) {
  const int gx = static_cast<int>(kref::arg_int(argc, argv, 2));
  const int gy = static_cast<int>(kref::arg_int(argc, argv, 3));
  const int bx = static_cast<int>(kref::arg_int(argc, argv, 4));
  const int by = static_cast<int>(kref::arg_int(argc, argv, 5));
  const int w = static_cast<int>(kref::arg_int(argc, argv, 6));
  const int h = static_cast<int>(kref::arg_int(argc, argv, 7));
  std::vector<std::int32_t> out(static_cast<std::size_t>(w * h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int cx = x / bx, tx = x % bx, cy = y / by, ty = y % by;
      out[static_cast<std::size_t>(y * w + x)] =
          (cy * gx + cx) * 1000 + ty * bx + tx;
    }
  kref::print_buffer(out);
  kref::print_buffer(std::vector<std::int32_t>{gx, gy, 1, bx, by, 1});
}

// grid3d GX GY GZ BX BY BZ W H D
void grid3d(int argc, char **argv) {
  int v[9];
  for (int i = 0; i < 9; ++i)
    v[i] = static_cast<int>(kref::arg_int(argc, argv, 2 + i));
  const int gx = v[0], gy = v[1], gz = v[2], bx = v[3], by = v[4], bz = v[5];
  const int w = v[6], h = v[7], d = v[8];
  std::vector<std::uint32_t> out(static_cast<std::size_t>(w * h * d));
  for (int z = 0; z < d; ++z)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const unsigned cx = x / bx, cy = y / by, cz = z / bz;
        const unsigned tx = x % bx, ty = y % by, tz = z % bz;
        out[static_cast<std::size_t>((z * h + y) * w + x)] =
            cx | cy << 4 | cz << 8 | tx << 12 | ty << 16 | tz << 20;
      }
  kref::print_buffer(out);
  kref::print_value(static_cast<std::uint32_t>(gx * gy * gz * bx * by * bz));
}

} // namespace

int main(int argc, char **argv) {
  const std::string_view name = argc > 1 ? argv[1] : "";
  if (name == "grid2d")
    grid2d(argc, argv);
  else if (name == "grid3d")
    grid3d(argc, argv);
  else
    kref::unknown_case(name);
  return 0;
}
