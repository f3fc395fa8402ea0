import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { A2aTask } from './a2a-task.entity';
import { A2aTasksService } from './a2a-tasks.service';

/**
 * The A2A tasks' table. The A2A endpoint itself (A2aRequestHandler, A2aHttp) sits beside the chat
 * pipeline in the app module, whose ChatService it uses.
 */
@Module({
  imports: [TypeOrmModule.forFeature([A2aTask])],
  providers: [A2aTasksService],
  exports: [A2aTasksService],
})
export class A2aStoreModule {}
