// The installed maker of remote agent tools: set before main by programs that include
// <reagent/reagent.hpp> (or call a2a::enableRemoteAgents()), read when agents are built.

#include "reagent/tools/remote_agent_catalog.hpp"

#include <mutex>

namespace reagent::tools {

namespace {

struct Catalog {
    std::mutex mutex;
    RemoteAgentToolMaker maker;
};

// A function-local static: safe to reach from another translation unit's static initialiser.
Catalog& catalog() {
    static Catalog instance;
    return instance;
}

}  // namespace

bool setRemoteAgentToolMaker(RemoteAgentToolMaker maker) {
    Catalog& installed = catalog();
    const std::lock_guard lock(installed.mutex);
    installed.maker = std::move(maker);
    return true;
}

expected<Tool, ToolError> makeRemoteAgentTool(const RemoteAgentSpec& spec) {
    RemoteAgentToolMaker maker;
    {
        Catalog& installed = catalog();
        const std::lock_guard lock(installed.mutex);
        maker = installed.maker;
    }
    if (!maker) {
        return fail(
            ToolError{ToolErrc::invalid_definition,
                      "remote agent '" + spec.name + "' (" + spec.url +
                          ") was asked for, but remote agents are not enabled in this program: include "
                          "<reagent/reagent.hpp> or call a2a::enableRemoteAgents(), and link reagent::a2a"});
    }
    return maker(spec);
}

}  // namespace reagent::tools
