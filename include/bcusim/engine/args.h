// The `bcusim run` argument language (docs/engine.md "bcusim run"), in the
// library so that tests and other front ends share it:
//
//   ARG  := TYPE:VALUE | TYPE[N][=INIT] | {FIELD,...}
//         | tensormap:MTYPE,@I,DIMS,BOX[,KEY=VALUE]... (docs/hopper.md)
//   FIELD := TYPE:VALUE | TYPE[N][=INIT] | @I | pad:N
//   INIT := zeros | iota | fill:V | rand:SEED | file:PATH
//   DIMS := X[,Y[,Z]]
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcusim/engine/engine.h"

namespace bcusim::engine {

struct ArgSpec {
  ScalarType type = ScalarType::U32;
  bool is_buffer = false;
  // scalar: the value's little-endian bytes
  std::vector<uint8_t> scalar;
  // buffer
  uint64_t count = 0;
  enum class Init : uint8_t {
    Zeros,
    Iota,
    Fill,
    Rand,
    File
  } init = Init::Zeros;
  std::vector<uint8_t> fill; // Fill: one element's bytes
  uint64_t seed = 0;         // Rand
  std::string path;          // File
  // {FIELD,...}: a structure passed by value. `scalar` holds its bytes
  // (C layout: each field at the next multiple of its size, the whole padded
  // to the largest field's alignment); `refs` the byte offsets that receive
  // the 64-bit address of a buffer, filled in when the buffers exist: an
  // @I field names buffer argument I; a TYPE[N][=INIT] field makes a buffer
  // of its own (`buffers[number]`, numbered as arguments after the
  // structure, not passed to the kernel).
  bool is_aggregate = false;
  struct Ref {
    uint32_t offset = 0;
    size_t number = 0;
    bool own = false; // `number` indexes `buffers`
  };
  std::vector<Ref> refs;
  std::vector<ArgSpec> buffers;
};

// Each returns nullopt and sets `error` (a sentence naming what is wrong).
std::optional<Dim3> parse_dims(std::string_view text, std::string &error);
std::optional<ArgSpec> parse_arg(std::string_view text, std::string &error);
// Parses one value of type t ("12", "-3", "0x1f", "1.5", "inf").
std::optional<std::vector<uint8_t>>
parse_value(ScalarType t, std::string_view text, std::string &error);
// The initial contents of a buffer argument (count * size_of(type) bytes).
std::optional<std::vector<uint8_t>> buffer_contents(const ArgSpec &spec,
                                                    std::string &error);
// One element per line: integers in decimal, floats in shortest round-trip
// form.
std::string format_elements(ScalarType t, const uint8_t *data, uint64_t count);

} // namespace bcusim::engine
