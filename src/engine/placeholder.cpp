// Placeholder until this part has sources.
namespace bcusim::engine {} // namespace bcusim::engine
