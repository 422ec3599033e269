/**
 * The languages the code map reads, each a tree-sitter grammar from `@vscode/tree-sitter-wasm` (WebAssembly builds,
 * no native code) and two queries:
 * - `definitions`: a capture `@name` on the defined name, in a node captured as `@definition.<kind>`;
 * - `references`: the names a file uses from elsewhere (`@reference`): what it imports, calls, constructs and names as
 *   a type, as the grammars' `tags.scm` references are; not every identifier, since local variables and properties
 *   called `name` or `text` would credit every definition of that name.
 * The definition patterns follow the grammars' own `queries/tags.scm`, trimmed to what a map of the code needs.
 */
export interface Language {
  name: string;
  /** The grammar's file in `@vscode/tree-sitter-wasm/wasm/`. */
  grammar: string;
  extensions: readonly string[];
  definitions: string;
  references: string;
}

const JAVASCRIPT_DEFINITIONS = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (property_identifier) @name) @definition.method
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function))
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.constant))
`;

const TYPESCRIPT_DEFINITIONS = `${JAVASCRIPT_DEFINITIONS}
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(function_signature name: (identifier) @name) @definition.function
(method_signature name: (property_identifier) @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(internal_module name: (identifier) @name) @definition.module
`;

const JAVASCRIPT_REFERENCES = `
(import_specifier name: (identifier) @reference)
(call_expression function: (identifier) @reference)
(call_expression function: (member_expression property: (property_identifier) @reference))
(new_expression constructor: (identifier) @reference)
(new_expression constructor: (member_expression property: (property_identifier) @reference))
(class_heritage (identifier) @reference)
`;

const TYPESCRIPT_REFERENCES = `
(import_specifier name: (identifier) @reference)
(call_expression function: (identifier) @reference)
(call_expression function: (member_expression property: (property_identifier) @reference))
(new_expression constructor: (identifier) @reference)
(new_expression constructor: (member_expression property: (property_identifier) @reference))
(extends_clause value: (identifier) @reference)
(type_identifier) @reference
`;

export const LANGUAGES: readonly Language[] = [
  {
    name: 'typescript',
    grammar: 'tree-sitter-typescript.wasm',
    extensions: ['.ts', '.mts', '.cts'],
    definitions: TYPESCRIPT_DEFINITIONS,
    references: TYPESCRIPT_REFERENCES,
  },
  {
    name: 'tsx',
    grammar: 'tree-sitter-tsx.wasm',
    extensions: ['.tsx'],
    definitions: TYPESCRIPT_DEFINITIONS,
    references: TYPESCRIPT_REFERENCES,
  },
  {
    name: 'javascript',
    grammar: 'tree-sitter-javascript.wasm',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    definitions: `${JAVASCRIPT_DEFINITIONS}\n(class_declaration name: (identifier) @name) @definition.class\n`,
    references: JAVASCRIPT_REFERENCES,
  },
  {
    name: 'python',
    grammar: 'tree-sitter-python.wasm',
    extensions: ['.py', '.pyi'],
    definitions: `
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name)) @definition.method))
(module (function_definition name: (identifier) @name) @definition.function)
(module (decorated_definition definition: (function_definition name: (identifier) @name)) @definition.function)
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name)) @definition.constant)
`,
    references: `
(import_from_statement name: (dotted_name (identifier) @reference))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @reference)))
(call function: (identifier) @reference)
(call function: (attribute attribute: (identifier) @reference))
(class_definition superclasses: (argument_list (identifier) @reference))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @reference)))
(type (identifier) @reference)
`,
  },
  {
    name: 'go',
    grammar: 'tree-sitter-go.wasm',
    extensions: ['.go'],
    definitions: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @definition.variable)
`,
    references: `
(call_expression function: (identifier) @reference)
(selector_expression field: (field_identifier) @reference)
(type_identifier) @reference
`,
  },
];

/** The language of a file by its extension, if the map reads it. */
export function languageOf(file: string): Language | undefined {
  const dot = file.lastIndexOf('.');
  if (dot === -1) return undefined;
  const extension = file.slice(dot).toLowerCase();
  return LANGUAGES.find((language) => language.extensions.includes(extension));
}
