// Lint on top of the type check: the recommended TypeScript rules, generated code excluded.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["gen/**", "node_modules/**", "**/dist/**", ".data/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // An `any` switches the type checker off where a bug would hide; name the type instead.
      "@typescript-eslint/no-explicit-any": ["error"],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
);
