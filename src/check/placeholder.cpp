// Placeholder until this part has sources.
namespace bcusim::check {} // namespace bcusim::check
