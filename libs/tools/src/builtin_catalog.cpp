// The installed maker of the built-in tools: set once before main (static initialisation of the
// program that includes <reagent/reagent.hpp>), read when agents are built.

#include "reagent/tools/builtin_catalog.hpp"

#include <mutex>
#include <utility>

namespace reagent::tools {

namespace {

struct Catalog {
    std::mutex mutex;
    BuiltinToolsMaker maker;
};

// A function-local static: safe to reach from another translation unit's static initialiser.
Catalog& catalog() {
    static Catalog instance;
    return instance;
}

}  // namespace

bool setBuiltinToolsMaker(BuiltinToolsMaker maker) {
    Catalog& installed = catalog();
    const std::lock_guard lock(installed.mutex);
    installed.maker = std::move(maker);
    return true;
}

bool builtinToolsAvailable() noexcept {
    Catalog& installed = catalog();
    const std::lock_guard lock(installed.mutex);
    return static_cast<bool>(installed.maker);
}

expected<BuiltinTools, ToolError> makeBuiltinTools(const BuiltinSelection& selection) {
    BuiltinToolsMaker maker;
    {
        Catalog& installed = catalog();
        const std::lock_guard lock(installed.mutex);
        maker = installed.maker;
    }
    if (maker) {
        return maker(selection);
    }
    if (selection.include && !selection.include->empty()) {
        return fail(ToolError{ToolErrc::invalid_definition,
                              "built-in tool '" + selection.include->front() +
                                  "' was asked for, but the built-in tools are not enabled in this program: "
                                  "include <reagent/reagent.hpp> or call builtins::enableBuiltinTools(), and "
                                  "link reagent::builtins"});
    }
    if (!selection.workspace.empty()) {
        return fail(
            ToolError{ToolErrc::invalid_definition,
                      "a workspace was given for the built-in tools, but they are not enabled in this "
                      "program: include <reagent/reagent.hpp> or call builtins::enableBuiltinTools(), "
                      "and link reagent::builtins"});
    }
    return BuiltinTools{};
}

}  // namespace reagent::tools
