#pragma once
/// \file
/// \brief The umbrella header: everything a program needs to build and run agents.

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/core/retry.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"

#include "reagent/tools/adapt_function.hpp"
#include "reagent/tools/schema_validator.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "reagent/tools/tool_call.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_definition.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_event.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/providers/provider_config.hpp"

#include "reagent/agent/agent.hpp"
#include "reagent/agent/agent_config.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/agent_event.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/agent/run_result.hpp"

// memory
#include "reagent/memory/episodic_store.hpp"
#include "reagent/memory/memory_error.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "reagent/memory/working_memory.hpp"

// transform
#include "reagent/transform/jq_transform.hpp"
