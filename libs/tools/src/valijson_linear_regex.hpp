#pragma once
// Private to libs/tools, included by schema_validator.cpp only, after valijson's headers and before any
// validation: valijson 1.0 matches `pattern` and `patternProperties` with std::regex, whose backtracking
// can run for hours on a pattern written by someone else, and it offers no way to plug another engine.
// These explicit specializations replace, for the two adapters reagent validates with (nlohmann values,
// and property names under `propertyNames`), exactly the visits that call std::regex with a schema's
// pattern; they match with LinearRegex (RE2) instead and keep valijson's semantics and messages.
// schemaProblem() has already refused a schema whose patterns RE2 cannot compile.

#include <set>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/adapters/std_string_adapter.hpp>
#include <valijson/validation_visitor.hpp>
#include <vector>

#include "reagent/tools/linear_regex.hpp"

namespace reagent::tools::detail {

// valijson's visit of a `pattern` constraint, matched by LinearRegex: a pattern RE2 refuses matches nothing.
template <class Adapter>
bool visitPattern(const valijson::constraints::PatternConstraint& constraint, const Adapter& target,
                  bool strictTypes, const std::vector<std::string>& context,
                  valijson::ValidationResults* results) {
    if ((strictTypes && !target.isString()) || !target.maybeString()) {
        return true;
    }
    const auto regex = LinearRegex::compile(constraint.getPattern<std::string::allocator_type>());
    if (!regex || !regex->search(target.asString())) {
        if (results != nullptr) {
            results->pushError(context, "Failed to match regex specified by 'pattern' constraint.");
        }
        return false;
    }
    return true;
}

}  // namespace reagent::tools::detail

namespace valijson {

template <>
inline bool ValidationVisitor<adapters::StdStringAdapter>::visit(
    const constraints::PatternConstraint& constraint) {
    return reagent::tools::detail::visitPattern(constraint, m_target, m_strictTypes, m_context, m_results);
}

template <>
inline bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(
    const constraints::PatternConstraint& constraint) {
    return reagent::tools::detail::visitPattern(constraint, m_target, m_strictTypes, m_context, m_results);
}

// valijson's own visit with the patternProperties step matched by LinearRegex (the properties and
// additionalProperties steps are unchanged).
template <>
inline bool ValidationVisitor<adapters::NlohmannJsonAdapter>::visit(
    const constraints::PropertiesConstraint& constraint) {
    using Adapter = adapters::NlohmannJsonAdapter;
    if ((m_strictTypes && !m_target.isObject()) || !m_target.maybeObject()) {
        return true;
    }
    bool validated = true;
    std::set<std::string> propertiesMatched;
    const typename Adapter::Object object = m_target.asObject();
    constraint.applyToProperties(ValidatePropertySubschemas(object, m_context, true, m_results != nullptr,
                                                            true, m_strictTypes, m_results,
                                                            &propertiesMatched, &validated, m_regexesCache));
    if (!validated && !m_results) {
        return false;
    }

    // A property must validate against the subschema of every pattern it matches; the first failure
    // ends this step, as in valijson.
    constraint.applyToPatternProperties([&](const auto& patternProperty, const Subschema* subschema) {
        const std::string pattern(patternProperty.c_str());
        const auto regex = reagent::tools::LinearRegex::compile(pattern);
        if (!regex) {
            return true;
        }
        for (const typename Adapter::ObjectMember m : object) {
            if (!regex->search(m.first)) {
                continue;
            }
            propertiesMatched.insert(m.first);
            std::vector<std::string> newContext = m_context;
            newContext.push_back("[" + m.first + "]");
            ValidationVisitor validator(m.second, newContext, m_strictTypes, m_results, m_regexesCache);
            if (validator.validateSchema(*subschema)) {
                continue;
            }
            if (m_results) {
                m_results->pushError(
                    m_context,
                    "Failed to validate against schema associated with pattern '" + pattern + "'.");
            }
            validated = false;
            return false;
        }
        return true;
    });

    const Subschema* additionalPropertiesSubschema = constraint.getAdditionalPropertiesSubschema();
    if (!additionalPropertiesSubschema) {
        if (propertiesMatched.size() != m_target.getObjectSize()) {
            if (m_results) {
                std::string unwanted;
                for (const typename Adapter::ObjectMember m : object) {
                    if (propertiesMatched.find(m.first) == propertiesMatched.end()) {
                        unwanted = m.first;
                        break;
                    }
                }
                m_results->pushError(
                    m_context,
                    "Object contains a property that could not be validated using 'properties' "
                    "or 'additionalProperties' constraints: '" +
                        unwanted + "'.");
            }
            return false;
        }
        return validated;
    }
    for (const typename Adapter::ObjectMember m : object) {
        if (propertiesMatched.find(m.first) == propertiesMatched.end()) {
            std::vector<std::string> newContext = m_context;
            newContext.push_back("[" + m.first + "]");
            ValidationVisitor validator(m.second, newContext, m_strictTypes, m_results, m_regexesCache);
            if (!validator.validateSchema(*additionalPropertiesSubschema)) {
                if (m_results) {
                    m_results->pushError(m_context,
                                         "Failed to validate against additional properties schema");
                }
                validated = false;
            }
        }
    }
    return validated;
}

}  // namespace valijson
