import { z } from "zod";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../limits.js";

/** New usernames: lower-case letters, digits, `.`, `_`, `-`; 1-64 characters. */
export const UsernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    "use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

export const NewPasswordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `use at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `use at most ${MAX_PASSWORD_LENGTH} characters`);

export const UserSchema = z.object({
  id: z.string(),
  username: z.string(),
  role: z.enum(["admin", "member"]),
  must_change_password: z.boolean(),
  created_at: z.iso.datetime(),
  last_login_at: z.iso.datetime().nullable().describe("The last successful login; null before the first"),
  disabled: z.boolean().describe("A disabled user cannot log in; their sessions and tokens are refused"),
});

export const UserResponseSchema = z.object({ user: UserSchema });
export const UserListResponseSchema = z.object({ users: z.array(UserSchema) });

/** Login checks any username and password as given; the rules for new ones do not apply here. */
export const LoginRequestSchema = z.strictObject({
  username: z.string().min(1).max(256),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
});

export const ChangePasswordRequestSchema = z.strictObject({
  current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  new_password: NewPasswordSchema,
});

export const CreateUserRequestSchema = z.strictObject({
  username: UsernameSchema,
  /** The initial password; the new user must replace it at first login. */
  password: NewPasswordSchema,
  role: z.enum(["admin", "member"]).default("member"),
});

/** An admin disables or enables a user. */
export const UpdateUserRequestSchema = z.strictObject({
  disabled: z.boolean(),
});

/** An admin sets a new initial password; the user must replace it at their next login. */
export const ResetPasswordRequestSchema = z.strictObject({
  password: NewPasswordSchema,
});

export const CreateTokenRequestSchema = z.strictObject({
  name: z.string().trim().min(1).max(100),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .optional()
    .describe("Days until the token is refused; omitted: it never expires"),
});

export const ApiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime().nullable().describe("After this the token is refused; null: never"),
});

export const CreatedApiTokenSchema = ApiTokenSchema.extend({
  token: z
    .string()
    .describe("The bearer token. Shown only in this response; the server keeps only its hash."),
});

export const ApiTokenListResponseSchema = z.object({ tokens: z.array(ApiTokenSchema) });
