// Placeholder until this part has sources.
namespace bcusim::isa {} // namespace bcusim::isa
