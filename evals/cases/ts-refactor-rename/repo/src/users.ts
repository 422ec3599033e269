/** The directory's users, by id. */

export interface User {
  id: number;
  name: string;
  email: string;
}

const USERS: User[] = [
  { id: 1, name: 'Ada Lovelace', email: 'ada@example.org' },
  { id: 2, name: 'Alan Turing', email: 'alan@example.org' },
];

export function getUsr(id: number): User {
  const user = USERS.find((candidate) => candidate.id === id);
  if (!user) throw new Error(`no user ${id}`);
  return user;
}

export function listUserIds(): number[] {
  return USERS.map((user) => user.id);
}
