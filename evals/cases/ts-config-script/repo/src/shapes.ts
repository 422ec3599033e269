/** Areas of the shapes the drawing tool knows. */

export type Shape = { kind: 'circle'; radius: number } | { kind: 'rectangle'; width: number; height: number };

export function area(shape: Shape): number {
  switch (shape.kind) {
    case 'circle':
      return Math.PI * shape.radius ** 2;
    case 'rectangle':
      return shape.width * shape.height;
  }
}
