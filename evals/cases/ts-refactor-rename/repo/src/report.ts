import { getUsr, listUserIds } from './users.js';

/** One line per user: "1 Ada Lovelace <ada@example.org>". */
export function userReport(): string {
  return listUserIds()
    .map((id) => {
      const user = getUsr(id);
      return `${user.id} ${user.name} <${user.email}>`;
    })
    .join('\n');
}
