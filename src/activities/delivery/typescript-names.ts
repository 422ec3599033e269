import ts from 'typescript';

/** A public name before its change is known: what `PublicName` holds without `change`. */
export interface FoundName {
  file: string;
  name: string;
  kind: string;
  signature: string;
}

export const TYPESCRIPT_FILE = /\.(?:[cm]?[jt]sx?)$/;

/**
 * The exported names of a TypeScript or JavaScript file, read with TypeScript's own parser (syntax only, nothing
 * runs): functions with their parameters and return types as written, classes with their public methods, constants,
 * interfaces, types and enums; and the CLI commands the file registers (`.command('name')`, as commander and yargs
 * take them). A file that does not parse still yields what the parser recovered.
 */
export function typescriptNames(file: string, source: string): FoundName[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  const found: FoundName[] = [];
  const add = (name: string, nameKind: string, signature: string) => found.push({ file, name, kind: nameKind, signature });
  for (const statement of tree.statements) {
    if (!isExported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      add(statement.name.text, 'function', callSignature(statement.name.text, statement, tree));
    } else if (ts.isClassDeclaration(statement) && statement.name) {
      const className = statement.name.text;
      add(className, 'class', className);
      for (const member of statement.members) {
        if (!ts.isMethodDeclaration(member) || !member.name || isHidden(member)) continue;
        const method = `${className}.${member.name.getText(tree)}`;
        add(method, 'method', callSignature(method, member, tree));
      }
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) continue;
        const name = declaration.name.text;
        const value = declaration.initializer;
        if (value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value))) add(name, 'function', callSignature(name, value, tree));
        else add(name, 'const', declaration.type ? `${name}: ${declaration.type.getText(tree)}` : name);
      }
    } else if (ts.isInterfaceDeclaration(statement)) add(statement.name.text, 'interface', statement.name.text);
    else if (ts.isTypeAliasDeclaration(statement)) add(statement.name.text, 'type', statement.name.text);
    else if (ts.isEnumDeclaration(statement)) add(statement.name.text, 'enum', statement.name.text);
  }
  const visit = (node: ts.Node): void => {
    const command = registeredCommand(node);
    if (command) add(command, 'command', command);
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return found;
}

function isExported(statement: ts.Statement): boolean {
  const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
  return modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) ?? false;
}

function isHidden(member: ts.MethodDeclaration): boolean {
  const hidden = [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword];
  return (ts.getModifiers(member) ?? []).some((modifier) => hidden.includes(modifier.kind)) || ts.isPrivateIdentifier(member.name);
}

/** `name(a: string, b?: number): string`, as written in the source. */
function callSignature(name: string, node: ts.SignatureDeclarationBase, tree: ts.SourceFile): string {
  const params = node.parameters.map((param) =>
    param
      .getText(tree)
      .replace(/\s*=.*$/s, '')
      .replace(/\s+/g, ' '),
  );
  const returns = node.type ? `: ${node.type.getText(tree).replace(/\s+/g, ' ')}` : '';
  return `${name}(${params.join(', ')})${returns}`;
}

/** `program.command('add')` or `.command('add <url>')`: the command's first word. */
function registeredCommand(node: ts.Node): string | undefined {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return undefined;
  if (node.expression.name.text !== 'command') return undefined;
  const first = node.arguments[0];
  if (!first || !ts.isStringLiteralLike(first)) return undefined;
  return first.text.split(/\s+/)[0] || undefined;
}
