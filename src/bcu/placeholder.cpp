// Placeholder until this part has sources.
namespace bcusim::bcu {} // namespace bcusim::bcu
