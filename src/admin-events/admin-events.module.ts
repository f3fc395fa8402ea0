import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { AdminEventsGateway } from './admin-events.gateway';
import { AdminEventsService } from './admin-events.service';

/** The `/admin` socket namespace and AdminEventsService, which features import to push to the console. */
@Module({
  imports: [AuthModule],
  providers: [AdminEventsGateway, AdminEventsService],
  exports: [AdminEventsService],
})
export class AdminEventsModule {}
