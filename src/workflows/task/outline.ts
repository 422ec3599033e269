/** The plan a complex or greenfield task is asked for before any change, in `<outline>` tags. */
export function extractOutline(text: string): string | undefined {
  const match = /<outline>([\s\S]*?)<\/outline>/i.exec(text);
  const outline = match?.[1].trim();
  return outline ? outline : undefined;
}

export const OUTLINE_REQUEST =
  'Before you change anything, start your first reply with a short outline inside <outline></outline> tags: the files ' +
  'you will create or change, in the order you will do it, one line each. Then go on with your tool calls.';
