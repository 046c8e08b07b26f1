"""The DynamicResources plugin: ResourceClaims (not simulated) and DRA extended resources."""
