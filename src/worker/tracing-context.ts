import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';

/**
 * Carries the active OpenTelemetry context across `await`s in the worker process. Without a context manager the
 * API's `context.with` is a no-op: the activity interceptor did read the workflow's trace context from the activity
 * headers, but started its RunActivity span from the empty root context anyway, so every activity began a trace of
 * its own and spans started inside an activity had no parent. The same few lines as
 * `@opentelemetry/context-async-hooks`'s manager, which this package does not otherwise need.
 */
export class AsyncLocalStorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const bound = thisArg === undefined ? fn : (fn.bind(thisArg) as F);
    return this.storage.run(context, bound, ...args);
  }

  /** Functions only: nothing in the worker binds event emitters, and anything else has no context to carry. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const { storage } = this;
    const call = target as (...args: unknown[]) => unknown;
    return function bound(this: unknown, ...args: unknown[]): unknown {
      return storage.run(context, () => call.apply(this, args));
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
