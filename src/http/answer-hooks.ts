/** What one hook does for the requests of one route, bound to that route once. */
export interface RouteAnswerHook {
  /** A request of the route was answered with `status`, `elapsedMs` after it arrived. */
  answered(status: number, elapsedMs: number): void;
}

/** Binds a hook to a route pattern (undefined: the request matched no route). */
export type AnswerHook = (routePattern: string | undefined) => RouteAnswerHook;

/**
 * The hooks every answered request passes: the edge calls them after it writes an answer
 * (edge/edge.ts), unmatched requests and preflights included. Each
 * hook is bound per route pattern once, so a request pays a call, not a look-up of its labels;
 * with no hook added, the edge times and calls nothing.
 */
export class AnswerHooks {
  private readonly hooks: AnswerHook[] = [];
  private readonly bound = new Map<string | undefined, RouteAnswerHook>();

  add(hook: AnswerHook): void {
    this.hooks.push(hook);
    this.bound.clear();
  }

  get empty(): boolean {
    return this.hooks.length === 0;
  }

  /** The hooks of one route pattern, bound once; null when there are none. */
  forRoute(pattern: string | undefined): RouteAnswerHook | null {
    if (this.hooks.length === 0) return null;
    let found = this.bound.get(pattern);
    if (found === undefined) {
      const each = this.hooks.map((hook) => hook(pattern));
      found = each.length === 1 ? each[0]! : { answered: (status, elapsedMs) => each.forEach((one) => one.answered(status, elapsedMs)) };
      this.bound.set(pattern, found);
    }
    return found;
  }
}
