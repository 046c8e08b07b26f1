"""The NodeDeclaredFeatures plugin (PreFilter, Filter) and the feature inference it uses."""
