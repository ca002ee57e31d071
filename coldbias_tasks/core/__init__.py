"""The pure core: no lm-eval, no plotting, no file output.

records and vocabulary (the shapes and names everything shares), errors, resources (where the
package data lives), catalog, personas, the parsers (answer_text, catalog_index, title_match,
parse; user_match, parse_users), metrics, aggregate, exposure and quality (the
degenerate-output rules). Modules here import only each other.
"""
