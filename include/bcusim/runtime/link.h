// Linking the PTX of relocatable device code (nvcc -rdc=true): the
// translation units' modules become one module in which every `.extern`
// function or variable resolves to the unit that defines it
// (docs/exec.md "Fat binaries").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bcusim::runtime {

// Whether a module declares `.extern` a function or variable that another
// of `modules` defines (what linking them is for).
bool ptx_modules_need_link(const std::vector<std::string> &modules);

// One PTX module made of `modules`, in order: the first module's
// `.version`/`.target`/`.address_size` (the highest `.version`), each
// module's text after them. Symbols a module keeps to itself (neither
// `.visible`, `.extern` nor `.weak`) are renamed (`name$1`) where another
// module uses the same name; of several `.weak` definitions the first is
// kept (a non-weak one wins) and the others become declarations; `.file`
// numbers are renumbered so that `.loc` directives keep their file. Two
// non-weak definitions of one visible symbol: nullopt and `error`. The
// device runtime's entry points (`__cudaCDP*`) stay declarations: the
// engine provides them, and the device runtime library's PTX that -rdc
// programs carry defines them through system calls the engine does not
// have.
std::optional<std::string> link_ptx(const std::vector<std::string> &modules,
                                    std::string &error);

} // namespace bcusim::runtime
