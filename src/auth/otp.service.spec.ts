import { generateCode } from './otp.service';

describe('generateCode', () => {
  it('makes 6 digits, leading zeros included, spread over the whole range', () => {
    const codes = Array.from({ length: 5000 }, generateCode);
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(4950);
    const firstDigits = new Set(codes.map((c) => c[0]));
    expect(firstDigits.size).toBe(10); // '0' included: padded, not dropped
  });
});
