"""Domain plugins: the reference domain's tools (Egri csillagok), configurable for any book through settings."""
