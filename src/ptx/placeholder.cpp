// Placeholder until this part has sources.
namespace bcusim::ptx {} // namespace bcusim::ptx
