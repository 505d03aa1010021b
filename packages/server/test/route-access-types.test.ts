import { describe, expect, expectTypeOf, it } from "vitest";
import type { AuthState } from "../src/index.js";
import { defineRoute } from "../src/index.js";

/**
 * The route's access level decides what its handler knows about the caller. These checks run in
 * the typecheck: a route for users or admins reads `auth.user` without a non-null assertion, and
 * a public route cannot read a caller at all.
 */
describe("route context typed by access level", () => {
  it("gives routes for users and admins their caller, and public routes none", () => {
    const forUsers = defineRoute({
      method: "get",
      path: "/api/typed/user",
      summary: "A route for users",
      tag: "test",
      access: "user",
      responses: { 200: { description: "ok" } },
      handle(c, { auth }) {
        expectTypeOf(auth).toEqualTypeOf<AuthState>();
        return c.json({ id: auth.user.id });
      },
    });
    const forAdmins = defineRoute({
      method: "get",
      path: "/api/typed/admin",
      summary: "A route for admins",
      tag: "test",
      access: "admin",
      responses: { 200: { description: "ok" } },
      handle(c, { auth }) {
        expectTypeOf(auth).toEqualTypeOf<AuthState>();
        return c.json({ role: auth.user.role });
      },
    });
    const forAnyone = defineRoute({
      method: "get",
      path: "/api/typed/public",
      summary: "A public route",
      tag: "test",
      access: "public",
      responses: { 200: { description: "ok" } },
      handle(c, { auth }) {
        expectTypeOf(auth).toEqualTypeOf<undefined>();
        // @ts-expect-error a public route has no caller to read
        return c.json({ id: auth.user.id });
      },
    });
    expect([forUsers, forAdmins, forAnyone].map((route) => route.access)).toEqual([
      "user",
      "admin",
      "public",
    ]);
  });
});
