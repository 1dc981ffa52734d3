/** A request a route refuses: answered with `status` and `{ error: message }` (as Antrea's handlers). */
export class RouteRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
