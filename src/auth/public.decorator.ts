import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { SessionStage } from './admin-session.entity';

export const IS_PUBLIC = 'auth:isPublic';

/**
 * Opts a controller or route out of the admin session check. Everything else is private: a new
 * route needs a valid admin session unless someone decided otherwise here. The OpenAPI document
 * shows such routes without the session requirement (an empty security requirement).
 */
export const Public = (): ClassDecorator & MethodDecorator => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiSecurity({}));

export const SESSION_STAGES = 'auth:sessionStages';

/**
 * The session stages a private route serves besides none: by default only a full session
 * ('full'); the second-factor routes name the stages of a sign-in still under way ('totp': waiting
 * for the authenticator code, 'enrol': a member who must set up a second factor first).
 */
export const SessionStages = (...stages: SessionStage[]): ClassDecorator & MethodDecorator => SetMetadata(SESSION_STAGES, stages);
