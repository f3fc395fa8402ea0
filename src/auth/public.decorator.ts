import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';

export const IS_PUBLIC = 'auth:isPublic';

/**
 * Opts a controller or route out of the admin session check. Everything else is private: a new
 * route needs a valid admin session unless someone decided otherwise here. The OpenAPI document
 * shows such routes without the session requirement (an empty security requirement).
 */
export const Public = (): ClassDecorator & MethodDecorator => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiSecurity({}));
