import { verify } from "otplib";

/**
 * TOTP codes as a real second factor: a code is accepted once (otplib's replay guard refuses a
 * step already used), from the current 30-second step, the one before (a slow typist) or the next
 * two (a clock a little ahead; it also lets a script sign in a few times within one step).
 */
export class SecondFactor {
  private readonly lastStep = new Map<string, number>();

  async accept(userSub: string, secret: string, code: string): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const afterTimeStep = this.lastStep.get(userSub);
    const result = await verify({
      secret,
      token: code,
      epochTolerance: [30, 60],
      ...(afterTimeStep === undefined ? {} : { afterTimeStep }),
    });
    if (!result.valid || !("timeStep" in result)) return false;
    this.lastStep.set(userSub, result.timeStep);
    return true;
  }
}
