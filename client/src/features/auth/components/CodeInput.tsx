import type { KeyboardEvent } from 'react';
import { OTP_DIGITS } from '@shared/contracts/auth';

/**
 * Digits only, at most 6 (the sign-in code rule). Applied to every change instead of a maxLength attribute, which would
 * cut a pasted "Code: 123 456" before its digits.
 */
export function sanitizeCode(raw: string): string {
  return raw.replace(/\D/g, '').slice(0, OTP_DIGITS);
}

export interface CodeInputProps {
  id: string;
  value: string;
  onChange(code: string): void;
  onKeyDown?(event: KeyboardEvent<HTMLInputElement>): void;
  disabled?: boolean;
  autoFocus?: boolean;
  placeholder?: string;
  'aria-describedby'?: string;
  'aria-label'?: string;
}

/** The large 6-digit code field of sign-in (emailed and authenticator codes) and of the authenticator set-up. */
export function CodeInput({ onChange, placeholder = '000000', ...props }: CodeInputProps) {
  return (
    <input
      {...props}
      className="login-code"
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      placeholder={placeholder}
      onChange={(e) => onChange(sanitizeCode(e.target.value))}
    />
  );
}
