// Wiring of the element-wise and indexing kernel families into the planner.
#include "program/exec/builders.hpp"

namespace ndbuf::program {

std::vector<BuilderEntry> indexing_builders() { return {}; }

}  // namespace ndbuf::program
